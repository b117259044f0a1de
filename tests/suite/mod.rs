mod agent;
mod config;
mod exec;
mod security;
mod structure;
mod tools;
mod ui;
mod wire;
