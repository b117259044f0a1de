mod adapters;
mod hostile_provider;
mod live;
mod simulator;
mod simulator_ring;
mod provider_numbers;
