mod module_cycles;
