"""The staff side: the dashboard, the replay viewer and pool operations (admin links here)."""
