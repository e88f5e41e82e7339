"""Storage: SQLModel models, the engine factory and migrations, typed queries."""
