mod adapters;
mod hostile_provider;
mod live;
mod provider_numbers;
mod simulator;
mod simulator_ring;
