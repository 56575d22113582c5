"""The browser client: Django pages that load plain JavaScript modules speaking the public API."""
