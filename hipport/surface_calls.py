"""Surface object calls that HIP has in another form: the boundary-mode argument and the
value-returning reads (HP1223, HP1224).

The facts are ``rules/hip_headers/surface_functions.yaml`` (CUDA 12.4's
``surface_indirect_functions.h`` against HIP 6.4.3's ``hip/amd_detail/amd_surface_functions.h``):

- CUDA's ``surf*read``/``surf*write`` take an optional last argument, the boundary mode
  (``cudaBoundaryModeTrap``, the default, ``cudaBoundaryModeZero`` or ``cudaBoundaryModeClamp``),
  which says what an out-of-range coordinate does: fault, read zero and drop the write, or use the
  nearest element. HIP's writes and 2D/3D/layered/cubemap reads take no mode; its ``surf1Dread``
  takes ``int boundaryMode = hipBoundaryModeZero`` (line 103) and does not read it. HIP declares
  zero as its only mode, so:

  - ``cudaBoundaryModeZero`` is dropped (the call then means what it meant), recorded as a call
    rewrite, no finding;
  - ``cudaBoundaryModeTrap``: with ``convert --fix`` dropped with a warning (HP1224), since an
    out-of-range access no longer faults; without ``--fix`` an error (HP1223): the call does not
    compile, and dropping the mode changes what a wrong coordinate does;
  - ``cudaBoundaryModeClamp``, or a mode hipport cannot read (a variable): an error (HP1223), the
    call unchanged;
  - passed to HIP's ``surf1Dread``, which accepts and ignores it: Trap and Clamp are a warning
    (HP1224), the call unchanged.

- CUDA's value form ``T v = surf2Dread<T>(obj, x, y)`` has no HIP twin (HIP's reads store through
  ``T *data``); it becomes an immediately invoked lambda around HIP's pointer form, which reads
  once and evaluates each argument once, as CUDA's does::

      surf2Dread<float>(obj, x, y)
      ->  [&]() -> float { float hipport_value; surf2Dread<float>(&hipport_value, obj, x, y); return hipport_value; }()

  (HIP's reads are templates on the element type, so the explicit ``<float>`` is kept.) Rewritten
  only when the element type is written as plain words (``float``, ``unsigned int``, ``uchar4``);
  recorded as a call rewrite.

A read of ``n + 2`` arguments whose last is not a mode enumerator is taken as the pointer form;
when it has explicit template arguments and its first argument is not ``&...``, it may also be the
value form with a mode held in a variable, so it is reported (HP1223). Calls in ``#define`` bodies,
and the cubemap-layered functions, whose coordinates differ in HIP (``x, y, face, layer`` for CUDA's
``x, y, layerface``), are left alone.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from .edits import Edit

if TYPE_CHECKING:
    import tree_sitter

    from .analyze import _FileContext

_MODE = re.compile(r"(?:::)?(?:cuda|hip)BoundaryMode(Zero|Trap|Clamp)")
_PLAIN_TYPE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(?:\s+[A-Za-z_][A-Za-z0-9_]*)*")
VALUE = "hipport_value"
_TABLE: dict | None = None


def surface_functions() -> dict:
    """``rules/hip_headers/surface_functions.yaml`` as loaded (``functions``: CUDA name -> its
    entry; ``hip_header``; ``hip_default_mode``), read once per process."""
    global _TABLE
    if _TABLE is None:
        from .resources import load_data_yaml

        _TABLE = load_data_yaml("hip_headers", "surface_functions.yaml")
    return _TABLE


def _names_pattern() -> re.Pattern:
    names = sorted(surface_functions()["functions"], key=len, reverse=True)
    return re.compile(rb"(?<![A-Za-z0-9_$])(?:" + b"|".join(n.encode() for n in names) + rb")(?![A-Za-z0-9_$])")


def _call_of(node: "tree_sitter.Node") -> "tuple[tree_sitter.Node, tree_sitter.Node | None] | None":
    """(call, template argument list or None) when identifier ``node`` names the called function."""
    function, parent = node, node.parent
    template = None
    if parent is not None and parent.type == "template_function" and parent.child_by_field_name("name") == node:
        template = parent.child_by_field_name("arguments")
        function, parent = parent, parent.parent
    if parent is not None and parent.type == "qualified_identifier" and parent.child_by_field_name("name") == function:
        function, parent = parent, parent.parent
    if parent is None or parent.type != "call_expression" or parent.child_by_field_name("function") != function:
        return None
    return parent, template


def _drop_last(ctx: "_FileContext", arguments: list) -> None:
    """Delete the last argument with the comma before it, and the renames inside it."""
    start, end = arguments[-2].end_byte, arguments[-1].end_byte
    ctx.result.edits[:] = [e for e in ctx.result.edits if not (start <= e.start and e.end <= end)]
    ctx.result.edits.append(Edit(start, end, b""))


def analyze_surface_calls(ctx: "_FileContext", fix: bool) -> None:
    """Port the boundary-mode arguments and value-form reads of the file's surface calls (see
    the module docstring).

    Args:
        ctx: the analysis context of one file (:class:`hipport.analyze._FileContext`), after the
            identifier renames (a dropped mode's rename is removed with it). Edits go to
            ``ctx.result.edits``, findings to ``ctx.result.findings``, the rewrites done to
            ``ctx.result.call_rewrites``.
        fix: ``convert --fix``: a ``cudaBoundaryModeTrap`` is dropped (HP1224) instead of
            reported (HP1223).
    """
    if b"surf" not in ctx.source:
        return
    table = surface_functions()
    functions = table["functions"]
    default = table["hip_default_mode"]
    where = f"{table['hip_header']}:{default['line']}"
    for match in _names_pattern().finditer(ctx.source):
        node = ctx.node_at(match.start(), match.end())
        if node.type != "identifier":
            continue
        found = _call_of(node)
        if found is None:
            continue
        call, template = found
        name = match.group().decode()
        entry = functions[name]
        if entry.get("hip_layer_face"):
            _report_layer_face(ctx, call, template, name, entry, table["hip_header"])
            continue
        if entry.get("hip_coordinates", entry["coordinates"]) != entry["coordinates"] or entry.get("hip_pointer_write"):
            continue
        arguments = [a for a in call.child_by_field_name("arguments").named_children if a.type != "comment"]
        coordinates = entry["coordinates"]
        last = ctx.text(arguments[-1]).decode("utf-8", "replace").strip() if arguments else ""
        literal = _MODE.fullmatch(last)
        value_form = False
        mode_given = False
        if entry["access"] == "write":
            if len(arguments) == coordinates + 3:
                mode_given = True
            elif len(arguments) != coordinates + 2:
                continue
        elif len(arguments) == coordinates + 1:
            value_form = True
        elif len(arguments) == coordinates + 2:
            if literal:
                value_form = mode_given = True
            elif template is not None and not ctx.text(arguments[0]).lstrip().startswith(b"&"):
                ctx.report("surface-boundary-mode", call, name=name, mode=last,
                           reason=(f"with {len(arguments)} arguments and a template argument this is either the pointer "
                                   f"form or CUDA's value form with a boundary mode held in a variable, which HIP's "
                                   f"{name} (no boundary mode, no value form) does not have"),
                           advice=(f"Write the pointer form without a mode, {name}(&value, surface, coordinates...): "
                                   "HIP handles an out-of-range coordinate as hipBoundaryModeZero"))
                continue
        elif len(arguments) == coordinates + 3:
            mode_given = True
        else:
            continue
        if value_form and template is None:
            continue  # CUDA's value form needs its element type; this is no call CUDA compiles
        point = (call.start_point[0], call.start_point[1])
        if mode_given:
            mode = literal.group(1) if literal else None
            if entry.get("hip_mode"):
                if mode in ("Trap", "Clamp"):
                    ctx.report("surface-boundary-dropped", call, name=name, mode=last,
                               action=f"is passed to HIP's {name}, which accepts a boundary mode and does not read it",
                               where=where, effect=_effect(mode))
            elif mode == "Zero":
                _drop_last(ctx, arguments)
                ctx.result.call_rewrites.append((name, f"{last} dropped (HIP's only boundary mode, {where})",
                                                 point[0] + 1, point[1] + 1))
            elif mode == "Trap" and fix:
                _drop_last(ctx, arguments)
                ctx.report("surface-boundary-dropped", call, name=name, mode=last,
                           action="is dropped (--fix): HIP's function takes no boundary mode", where=where,
                           effect=_effect(mode))
            else:
                ctx.report("surface-boundary-mode", call, name=name, mode=last,
                           reason=_reason(name, mode, last, where), advice=_advice(name, mode))
                continue
        if value_form:
            element = ctx.text(template)[1:-1].decode("utf-8", "replace").strip()
            if _PLAIN_TYPE.fullmatch(element) is None:
                ctx.report("surface-boundary-mode", call, name=name, mode="(none)",
                           reason=f"CUDA's value form {name}<{element}>(...) has no HIP twin and hipport rewrites it "
                                  "only for an element type written as plain words",
                           advice=f"Read into a variable with HIP's pointer form: {name}(&value, surface, coordinates...)")
                continue
            opening = call.child_by_field_name("arguments")
            ctx.result.edits.append(Edit(call.start_byte, call.start_byte,
                                         f"[&]() -> {element} {{ {element} {VALUE}; ".encode()))
            ctx.result.edits.append(Edit(opening.start_byte + 1, opening.start_byte + 1, f"&{VALUE}, ".encode()))
            ctx.result.edits.append(Edit(call.end_byte, call.end_byte, f"; return {VALUE}; }}()".encode()))
            ctx.result.call_rewrites.append(
                (name, f"the value form becomes HIP's pointer form in an immediately invoked lambda returning {element}",
                 point[0] + 1, point[1] + 1))


def _report_layer_face(ctx: "_FileContext", call, template, name: str, entry: dict, header: str) -> None:
    """HP2046 at a call of a cubemap layered surface function, whose one CUDA layerFace argument
    HIP splits into face and layer (``hip_layer_face`` in rules/hip_headers/surface_functions.yaml)."""
    arguments = [a for a in call.child_by_field_name("arguments").named_children if a.type != "comment"]
    last = ctx.text(arguments[-1]).decode("utf-8", "replace").strip() if arguments else ""
    value_form = entry["access"] == "read" and template is not None and (
        len(arguments) == 4 or (len(arguments) == 5 and _MODE.fullmatch(last) is not None))
    first = 1 if value_form else 2  # the x coordinate
    layer_face = ctx.text(arguments[first + 2]).decode("utf-8", "replace") if len(arguments) > first + 2 else "layerFace"
    data = ("takes the value by pointer (T *data) where CUDA's takes it by value, and "
            if entry.get("hip_pointer_write") else "")
    if entry.get("hip_uncompilable"):
        hip_form = (f"none compiles in HIP 6.4.3 ({entry['hip_uncompilable']}); write the data another way, such as "
                    f"a 2D layered surface with surf2DLayeredwrite at layer {layer_face}")
    else:
        hip_form = f"{name}(&value, surface, x, y, ({layer_face}) % 6, ({layer_face}) / 6)"
    ctx.report("surface-layer-face", call, name=name, layer_face=layer_face,
               where=f"{header}:{entry['hip_line']}", data=data, ockl=entry["hip_layer_face"], hip_form=hip_form)


def _effect(mode: str | None) -> str:
    if mode == "Clamp":
        return "an out-of-range coordinate no longer reads or writes the nearest element, as cudaBoundaryModeClamp made it"
    return "an out-of-range access no longer makes the kernel fail, as cudaBoundaryModeTrap made it"


def _reason(name: str, mode: str | None, text: str, where: str) -> str:
    if mode == "Trap":
        return (f"the boundary mode {text}: HIP 6.4.3's {name} takes no boundary mode and handles an out-of-range coordinate as "
                f"hipBoundaryModeZero, the one mode HIP declares ({where}); dropping the argument, which convert --fix "
                "does, means an out-of-range access no longer makes the kernel fail")
    if mode == "Clamp":
        return (f"the boundary mode {text}: HIP 6.4.3's {name} takes no boundary mode and handles an out-of-range coordinate as "
                f"hipBoundaryModeZero, the one mode HIP declares ({where}), not by using the nearest element")
    return f"the boundary mode {text} is not an enumerator hipport can read, and HIP 6.4.3's {name} takes no boundary mode"


def _advice(name: str, mode: str | None) -> str:
    if mode == "Trap":
        return (f"Run convert --fix to drop it, or write {name} without the mode and check the coordinates in the kernel "
                "where a fault on a wrong coordinate is relied on")
    if mode == "Clamp":
        return (f"Clamp the coordinates in the kernel (x, in bytes, to [0, (width - 1) * sizeof(element)], the others "
                f"to [0, size - 1]) and call {name} without the mode")
    return (f"Call {name} without the mode; where the mode is not cudaBoundaryModeZero, check or clamp the coordinates "
            "in the kernel")
