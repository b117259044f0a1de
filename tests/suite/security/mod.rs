mod kill;
mod secrets;
mod secrets_remote;
