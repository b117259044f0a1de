mod kill;
mod secrets;
