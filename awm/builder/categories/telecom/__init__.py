"""The telecom category: its pack data (pack.yaml), entity tables (entities.py), tools (tools.py), tool
templates (templates.py) and requests (requests.py)."""
