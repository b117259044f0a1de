mod decisions;
mod permissions;
