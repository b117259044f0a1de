mod escapes;
mod headless;
mod json;
