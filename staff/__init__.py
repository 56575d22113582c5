"""The staff side: the dashboard, the replay viewer's page and the pool top-up button (admin
links here); what they share with the games' admin (the replay's reads, the deal operations) is
``games.replay`` and ``games.staff_operations``."""
