from sheli.cli import console

console()
