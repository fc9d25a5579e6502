"""What the results look like: the tables, the JSON report files, the plot, the HTML page, the model
summary and the paper comparison.

Stands on ``core`` and ``gate`` (the metrics it shows).
"""
