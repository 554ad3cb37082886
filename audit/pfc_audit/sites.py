"""Where a finding points: the user's line that built a module or an
optimizer, or called backward() or step(). A frame is the user's when its
file lies outside PyTorch, the standard library, installed packages and this
package."""
import inspect
import os
import sys
import sysconfig

import torch

_LIB_DIRS = tuple(os.path.realpath(d) + os.sep for d in {
    os.path.dirname(torch.__file__), os.path.dirname(os.path.abspath(__file__)),
    sysconfig.get_paths()["stdlib"], sysconfig.get_paths()["purelib"],
    sysconfig.get_paths()["platlib"]} if d)


def is_user_file(path):
    if not path or path.startswith("<"):
        return False
    real = os.path.realpath(path)
    if "site-packages" in real or "dist-packages" in real:
        return False
    return not real.startswith(_LIB_DIRS)


def user_site(skip=1, constructing=None):
    """(path, line) of the innermost user frame on the stack, or None. With
    `constructing`, the frames of that object's own __init__ chain are passed
    over: a module is placed where it is built, not at its super().__init__()."""
    frame = sys._getframe(skip)
    while frame is not None:
        if constructing is not None and frame.f_code.co_name == "__init__" \
                and frame.f_locals.get("self") is constructing:
            frame = frame.f_back
            continue
        if is_user_file(frame.f_code.co_filename):
            return frame.f_code.co_filename, frame.f_lineno
        frame = frame.f_back
    return None


def class_site(obj):
    """(path, line) of obj's class definition when the user wrote it."""
    try:
        cls = type(obj)
        path = inspect.getsourcefile(cls)
        if path and is_user_file(path):
            return path, inspect.getsourcelines(cls)[1]
    except (TypeError, OSError):
        pass
    return None
