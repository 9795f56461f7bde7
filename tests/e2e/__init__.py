"""End to end: real servers and real clients, a real terminal, README's walkthroughs."""
