mod acting;
mod escapes;
mod feedback;
mod headless;
mod json;
mod retries;
mod status_cost;
mod checkpoints;
