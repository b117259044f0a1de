mod escapes;
mod feedback;
mod headless;
mod json;
