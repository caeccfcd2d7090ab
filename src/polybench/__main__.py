from polybench.cli.main import app

app()
