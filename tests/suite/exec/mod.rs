mod headless;
mod json;
