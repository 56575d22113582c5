"""The REST API of games (/api/v1/): thin views over games.services and games.selectors."""
