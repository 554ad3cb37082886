# min-version: 3.10
def handle(command):
    match command.split():
        case [action]:
            return action
        case ["go", direction] | ["move", direction]:
            return direction
        case _:
            return None
