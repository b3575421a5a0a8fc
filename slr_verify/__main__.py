import sys

try:
    from slr_verify.cli import main
except KeyboardInterrupt:  # Ctrl-C while the package is imported: one line, like everywhere else
    print("\nslr-verify: interrupted (Ctrl-C)", file=sys.stderr)
    raise SystemExit(1)

raise SystemExit(main())
