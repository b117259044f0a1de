mod acting;
mod checkpoints;
mod escapes;
mod feedback;
mod headless;
mod json;
mod retries;
mod status_cost;
