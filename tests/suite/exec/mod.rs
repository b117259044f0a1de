mod acting;
mod controls;
mod escapes;
mod feedback;
mod headless;
mod json;
mod retries;
mod status_cost;
