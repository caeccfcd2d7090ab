from polybench.cli.main import main

main()
