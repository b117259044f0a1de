mod acting;
mod demo_locale;
mod escapes;
mod feedback;
mod headless;
mod json;
mod retries;
mod status_cost;
