mod cells;
mod components;
mod composer_loop;
mod locales;
mod markdown;
mod screens;
mod styled;
mod wrap;
