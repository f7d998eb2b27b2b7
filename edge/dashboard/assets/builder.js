// The builder's script: see the next commit.
