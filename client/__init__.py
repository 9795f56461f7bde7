"""The terminal clients of ubao: `ubao play`, `watch`, `games`, `bot`, `export` and `replay`."""
