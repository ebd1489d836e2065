from sheli.cli import main

main()
