# min-version: 3.9
buttons = [lambda f: f]
@buttons[0]
def on_click():
    pass
