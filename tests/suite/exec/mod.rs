mod escapes;
mod feedback;
mod headless;
mod json;
mod status_cost;
