from tables_app.cli import main

main()
