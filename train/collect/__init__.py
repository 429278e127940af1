"""What every trainer shares to play its games: the self-play collector over batched games, its worker processes, the privileged encoder."""
