"""The social layer's endpoints (docs/api.md, "Playing together")."""
