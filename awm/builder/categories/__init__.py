"""Categories of business, one folder each: awm/builder/categories/<category>/."""
