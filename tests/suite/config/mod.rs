mod arbitrary_values;
mod hostile_files;
mod tools;
