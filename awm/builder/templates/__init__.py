"""Template modules: the code the builder writes, as real Python (see awm.builder.codegen)."""
