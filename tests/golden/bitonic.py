"""The canonical example of DESIGN.md section 7 as the library ships it
(``pyshade.algorithms.sort``): one step of a bitonic sort, with a generic
element type, NewTypes, an enum, a struct parameter and a Const[type] trait
implementation. Imported, not copied, so the golden files track the library."""

from pyshade import f32
from pyshade.algorithms.sort import bitonic_step  # noqa: F401 - translated by test_golden

SPECS = {"bitonic_step": {"T": f32}}
