"""Tests of ubao.client: the model, the screens, the command line and the bot client."""
