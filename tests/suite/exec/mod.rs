mod escapes;
mod headless;
mod json;
mod status_cost;
