"""The rule families (cards, lowest, lives) and the presets; app.scoring is their front."""
