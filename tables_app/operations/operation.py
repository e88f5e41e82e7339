"""An operation: what one command of `tables` and one route of the HTTP API
both do, with its parameters declared once (operations/params.py)."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import Any, Callable, Iterable

from tables_app.operations.params import Param, ParamError


_REFUSED = object()  # Operation._defaults: a default that check refuses


@dataclass(frozen=True)
class Operation:
    """``run(database, **values)`` answers it; ``values`` are keyed by each
    parameter's ``name`` and already checked (``checked`` or ``read``).

    ``words``: the command (``("query", "attack")`` is `tables query
    attack`); ``help``: its help, first paragraph its summary.
    """

    words: tuple[str, ...]
    params: tuple[Param, ...]
    run: Callable[..., Any]
    help: str
    short_help: str | None = None
    dash_arguments: bool = False  # an argument may start with a dash (RESULT -5 is a result, not an option)
    uses_database: bool = True

    @cached_property
    def by_field(self) -> dict[str, Param]:
        """Each parameter by its field, and by its older spellings."""
        fields = {p.field: p for p in self.params}
        fields.update({alias.replace("-", "_"): p for p in self.params for alias in p.aliases})
        return fields

    @property
    def title(self) -> str:
        return " ".join(self.words)

    def checked(self, values: dict[str, Any]) -> dict[str, Any]:
        """``values`` (keyed by name) checked and completed with defaults; ParamError for the first refused."""
        names = {p.name: p for p in self.params}
        for name in values:
            if name not in names:
                raise ParamError(name, self._unknown(name, list(names)))
        return {p.name: p.check(values.get(p.name, p.default)) for p in self.params}

    def read(self, fields: Iterable[tuple[str, Any]]) -> dict[str, Any]:
        """A request's ``(field, value)`` pairs (a JSON body's items, a query
        string's, a path's) as the values ``run`` takes: each read by its
        parameter; a field given twice repeats a repeatable one."""
        given: dict[str, Any] = {}
        for key, value in fields:
            param = self.by_field.get(key)
            if param is None:
                raise ParamError(key, self._unknown(key, [p.field for p in self.params]))
            if param.name in given and value is not None:
                if not param.multiple:
                    raise ParamError(key, "give it once")
                before = given[param.name]
                given[param.name] = [*(before if isinstance(before, list) else [before]),
                                     *(value if isinstance(value, list) else [value])]
            elif value is not None:
                given[param.name] = value
        values: dict[str, Any] = {}
        for name, param, default in self._defaults:
            if name in given:
                values[name] = param.read(given[name])
            else:
                values[name] = param.check(param.default) if default is _REFUSED else default
        return values

    @cached_property
    def _defaults(self) -> tuple[tuple[str, Param, Any], ...]:
        """Each parameter with its name and its default checked once (a served request reads
        twenty of them); _REFUSED for a default that check refuses (a required parameter's)."""
        def checked(param: Param) -> Any:
            try:
                return param.check(param.default)
            except ParamError:
                return _REFUSED
        return tuple((p.name, p, checked(p)) for p in self.params)

    def call(self, database: Any, **values: Any) -> Any:
        """``run`` with ``values`` checked first: the library's entry point."""
        return self.run(database, **self.checked(values))

    def _unknown(self, name: str, known: list[str]) -> str:
        import difflib  # only for a refusal: start-up stays light

        near = difflib.get_close_matches(name, known, n=3)
        hint = f"did you mean {' or '.join(map(repr, near))}?" if near else f"{self.title} takes {', '.join(known) or 'nothing'}"
        return f"no such field ({hint})"
