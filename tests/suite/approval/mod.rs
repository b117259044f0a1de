mod decisions;
mod permissions;
mod retry;
