"""Exchange of stock data with other systems: CSV and JSON import/export."""
