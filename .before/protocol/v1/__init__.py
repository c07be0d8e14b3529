"""Protocol v1: Structs for every message, check and result."""
