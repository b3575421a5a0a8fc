from slr_verify.cli import main

raise SystemExit(main())
