mod cells;
mod components;
mod locales;
mod markdown;
mod screens;
mod styled;
mod wrap;
