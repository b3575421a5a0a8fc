"""The benchmarks' CSV output: the path checked before a long run, the rows rewritten after each one (a partial table
survives an interruption)."""
import csv
import os


def check_csv_out(path) -> str:
    """``path`` must be a .csv file in an existing, writable folder (SystemExit naming ``--out`` otherwise)."""
    parent = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(parent) or not os.access(parent, os.W_OK) or not str(path).endswith(".csv"):
        raise SystemExit(f"--out: {path!r} must be a .csv file in an existing, writable folder")
    return path


def write_rows(path, fields, rows):
    """Rewrite the whole table (header and rows)."""
    with open(path, "w", newline="") as fh:
        w = csv.DictWriter(fh, fields)
        w.writeheader()
        w.writerows(rows)
