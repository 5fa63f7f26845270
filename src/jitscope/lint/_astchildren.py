"""GENERATED from lint/astutil.py (`_source`): do not edit. The child functions of astutil's walks
compiled ahead, one per field tuple of the node types of the Pythons in PYTHONS: a lint loads them
with this module's bytecode instead of compiling each at its first node (~90 us each). Regenerate
(adding the running Python): python -c "from jitscope.lint import astutil; astutil.write_ahead()"."""
# ruff: noqa
from ast import AST

PYTHONS = ((3, 11), (3, 12), (3, 13))


def _c0(node):
    out = []
    return out


def _c1(node):
    out = []
    v = node.annotation
    if v is not None:
        if type(v) is list:
            out += v
        elif isinstance(v, AST):
            out.append(v)
    return out


def _c2(node):
    out = []
    v = node.args
    if v is not None:
        if type(v) is list:
            out += v
        elif isinstance(v, AST):
            out.append(v)
    v = node.body
    if v is not None:
        if type(v) is list:
            out += v
        elif isinstance(v, AST):
            out.append(v)
    return out


def _c3(node):
    out = []
    v = node.args
    if v is not None:
        if type(v) is list:
            out += v
        elif isinstance(v, AST):
            out.append(v)
    v = node.body
    if v is not None:
        if type(v) is list:
            out += v
        elif isinstance(v, AST):
            out.append(v)
    v = node.decorator_list
    if v is not None:
        if type(v) is list:
            out += v
        elif isinstance(v, AST):
            out.append(v)
    v = node.returns
    if v is not None:
        if type(v) is list:
            out += v
        elif isinstance(v, AST):
            out.append(v)
    return out


def _c4(node):
    out = []
    v = node.args
    if v is not None:
        if type(v) is list:
            out += v
        elif isinstance(v, AST):
            out.append(v)
    v = node.body
    if v is not None:
        if type(v) is list:
            out += v
        elif isinstance(v, AST):
            out.append(v)
    v = node.decorator_list
    if v is not None:
        if type(v) is list:
            out += v
        elif isinstance(v, AST):
            out.append(v)
    v = node.returns
    if v is not None:
        if type(v) is list:
            out += v
        elif isinstance(v, AST):
            out.append(v)
    v = node.type_params
    if v is not None:
        if type(v) is list:
            out += v
        elif isinstance(v, AST):
            out.append(v)
    return out


def _c5(node):
    out = []
    v = node.argtypes
    if v is not None:
        if type(v) is list:
            out += v
        elif isinstance(v, AST):
            out.append(v)
    v = node.returns
    if v is not None:
        if type(v) is list:
            out += v
        elif isinstance(v, AST):
            out.append(v)
    return out


def _c6(node):
    out = []
    v = node.asname
    if v is not None:
        if type(v) is list:
            out += v
        elif isinstance(v, AST):
            out.append(v)
    return out


def _c7(node):
    out = []
    v = node.bases
    if v is not None:
        if type(v) is list:
            out += v
        elif isinstance(v, AST):
            out.append(v)
    v = node.keywords
    if v is not None:
        if type(v) is list:
            out += v
        elif isinstance(v, AST):
            out.append(v)
    v = node.body
    if v is not None:
        if type(v) is list:
            out += v
        elif isinstance(v, AST):
            out.append(v)
    v = node.decorator_list
    if v is not None:
        if type(v) is list:
            out += v
        elif isinstance(v, AST):
            out.append(v)
    return out


def _c8(node):
    out = []
    v = node.bases
    if v is not None:
        if type(v) is list:
            out += v
        elif isinstance(v, AST):
            out.append(v)
    v = node.keywords
    if v is not None:
        if type(v) is list:
            out += v
        elif isinstance(v, AST):
            out.append(v)
    v = node.body
    if v is not None:
        if type(v) is list:
            out += v
        elif isinstance(v, AST):
            out.append(v)
    v = node.decorator_list
    if v is not None:
        if type(v) is list:
            out += v
        elif isinstance(v, AST):
            out.append(v)
    v = node.type_params
    if v is not None:
        if type(v) is list:
            out += v
        elif isinstance(v, AST):
            out.append(v)
    return out


def _c9(node):
    out = []
    v = node.body
    if v is not None:
        if type(v) is list:
            out += v
        elif isinstance(v, AST):
            out.append(v)
    return out


def _c10(node):
    out = []
    v = node.body
    if v is not None:
        if type(v) is list:
            out += v
        elif isinstance(v, AST):
            out.append(v)
    v = node.handlers
    if v is not None:
        if type(v) is list:
            out += v
        elif isinstance(v, AST):
            out.append(v)
    v = node.orelse
    if v is not None:
        if type(v) is list:
            out += v
        elif isinstance(v, AST):
            out.append(v)
    v = node.finalbody
    if v is not None:
        if type(v) is list:
            out += v
        elif isinstance(v, AST):
            out.append(v)
    return out


def _c11(node):
    out = []
    v = node.body
    if v is not None:
        if type(v) is list:
            out += v
        elif isinstance(v, AST):
            out.append(v)
    v = node.type_ignores
    if v is not None:
        if type(v) is list:
            out += v
        elif isinstance(v, AST):
            out.append(v)
    return out


def _c12(node):
    out = []
    v = node.bound
    if v is not None:
        if type(v) is list:
            out += v
        elif isinstance(v, AST):
            out.append(v)
    return out


def _c13(node):
    out = []
    v = node.bound
    if v is not None:
        if type(v) is list:
            out += v
        elif isinstance(v, AST):
            out.append(v)
    v = node.default_value
    if v is not None:
        if type(v) is list:
            out += v
        elif isinstance(v, AST):
            out.append(v)
    return out


def _c14(node):
    out = []
    v = node.cls
    if v is not None:
        if type(v) is list:
            out += v
        elif isinstance(v, AST):
            out.append(v)
    v = node.patterns
    if v is not None:
        if type(v) is list:
            out += v
        elif isinstance(v, AST):
            out.append(v)
    v = node.kwd_attrs
    if v is not None:
        if type(v) is list:
            out += [x for x in v if isinstance(x, AST)]
        elif isinstance(v, AST):
            out.append(v)
    v = node.kwd_patterns
    if v is not None:
        if type(v) is list:
            out += v
        elif isinstance(v, AST):
            out.append(v)
    return out


def _c15(node):
    out = []
    v = node.context_expr
    if v is not None:
        if type(v) is list:
            out += v
        elif isinstance(v, AST):
            out.append(v)
    v = node.optional_vars
    if v is not None:
        if type(v) is list:
            out += v
        elif isinstance(v, AST):
            out.append(v)
    return out


def _c16(node):
    out = []
    v = node.ctx
    if v is not None:
        if type(v) is list:
            out += v
        elif isinstance(v, AST):
            out.append(v)
    return out


def _c17(node):
    out = []
    v = node.default_value
    if v is not None:
        if type(v) is list:
            out += v
        elif isinstance(v, AST):
            out.append(v)
    return out


def _c18(node):
    out = []
    v = node.elt
    if v is not None:
        if type(v) is list:
            out += v
        elif isinstance(v, AST):
            out.append(v)
    v = node.generators
    if v is not None:
        if type(v) is list:
            out += v
        elif isinstance(v, AST):
            out.append(v)
    return out


def _c19(node):
    out = []
    v = node.elts
    if v is not None:
        if type(v) is list:
            out += v
        elif isinstance(v, AST):
            out.append(v)
    return out


def _c20(node):
    out = []
    v = node.elts
    if v is not None:
        if type(v) is list:
            out += v
        elif isinstance(v, AST):
            out.append(v)
    v = node.ctx
    if v is not None:
        if type(v) is list:
            out += v
        elif isinstance(v, AST):
            out.append(v)
    return out


def _c21(node):
    out = []
    v = node.exc
    if v is not None:
        if type(v) is list:
            out += v
        elif isinstance(v, AST):
            out.append(v)
    v = node.cause
    if v is not None:
        if type(v) is list:
            out += v
        elif isinstance(v, AST):
            out.append(v)
    return out


def _c22(node):
    out = []
    v = node.func
    if v is not None:
        if type(v) is list:
            out += v
        elif isinstance(v, AST):
            out.append(v)
    v = node.args
    if v is not None:
        if type(v) is list:
            out += v
        elif isinstance(v, AST):
            out.append(v)
    v = node.keywords
    if v is not None:
        if type(v) is list:
            out += v
        elif isinstance(v, AST):
            out.append(v)
    return out


def _c23(node):
    out = []
    v = node.items
    if v is not None:
        if type(v) is list:
            out += v
        elif isinstance(v, AST):
            out.append(v)
    v = node.body
    if v is not None:
        if type(v) is list:
            out += v
        elif isinstance(v, AST):
            out.append(v)
    return out


def _c24(node):
    out = []
    v = node.key
    if v is not None:
        if type(v) is list:
            out += v
        elif isinstance(v, AST):
            out.append(v)
    v = node.value
    if v is not None:
        if type(v) is list:
            out += v
        elif isinstance(v, AST):
            out.append(v)
    v = node.generators
    if v is not None:
        if type(v) is list:
            out += v
        elif isinstance(v, AST):
            out.append(v)
    return out


def _c25(node):
    out = []
    v = node.keys
    if v is not None:
        if type(v) is list:
            out += [x for x in v if isinstance(x, AST)]
        elif isinstance(v, AST):
            out.append(v)
    v = node.patterns
    if v is not None:
        if type(v) is list:
            out += v
        elif isinstance(v, AST):
            out.append(v)
    v = node.rest
    if v is not None:
        if type(v) is list:
            out += v
        elif isinstance(v, AST):
            out.append(v)
    return out


def _c26(node):
    out = []
    v = node.keys
    if v is not None:
        if type(v) is list:
            out += [x for x in v if isinstance(x, AST)]
        elif isinstance(v, AST):
            out.append(v)
    v = node.values
    if v is not None:
        if type(v) is list:
            out += v
        elif isinstance(v, AST):
            out.append(v)
    return out


def _c27(node):
    out = []
    v = node.left
    if v is not None:
        if type(v) is list:
            out += v
        elif isinstance(v, AST):
            out.append(v)
    v = node.comparators
    if v is not None:
        if type(v) is list:
            out += v
        elif isinstance(v, AST):
            out.append(v)
    return out


def _c28(node):
    out = []
    v = node.left
    if v is not None:
        if type(v) is list:
            out += v
        elif isinstance(v, AST):
            out.append(v)
    v = node.op
    if v is not None:
        if type(v) is list:
            out += v
        elif isinstance(v, AST):
            out.append(v)
    v = node.right
    if v is not None:
        if type(v) is list:
            out += v
        elif isinstance(v, AST):
            out.append(v)
    return out


def _c29(node):
    out = []
    v = node.left
    if v is not None:
        if type(v) is list:
            out += v
        elif isinstance(v, AST):
            out.append(v)
    v = node.ops
    if v is not None:
        if type(v) is list:
            out += v
        elif isinstance(v, AST):
            out.append(v)
    v = node.comparators
    if v is not None:
        if type(v) is list:
            out += v
        elif isinstance(v, AST):
            out.append(v)
    return out


def _c30(node):
    out = []
    v = node.left
    if v is not None:
        if type(v) is list:
            out += v
        elif isinstance(v, AST):
            out.append(v)
    v = node.right
    if v is not None:
        if type(v) is list:
            out += v
        elif isinstance(v, AST):
            out.append(v)
    return out


def _c31(node):
    out = []
    v = node.lower
    if v is not None:
        if type(v) is list:
            out += v
        elif isinstance(v, AST):
            out.append(v)
    v = node.upper
    if v is not None:
        if type(v) is list:
            out += v
        elif isinstance(v, AST):
            out.append(v)
    v = node.step
    if v is not None:
        if type(v) is list:
            out += v
        elif isinstance(v, AST):
            out.append(v)
    return out


def _c32(node):
    out = []
    v = node.name
    if v is not None:
        if type(v) is list:
            out += v
        elif isinstance(v, AST):
            out.append(v)
    return out


def _c33(node):
    out = []
    v = node.name
    if v is not None:
        if type(v) is list:
            out += v
        elif isinstance(v, AST):
            out.append(v)
    v = node.args
    if v is not None:
        if type(v) is list:
            out += v
        elif isinstance(v, AST):
            out.append(v)
    v = node.body
    if v is not None:
        if type(v) is list:
            out += v
        elif isinstance(v, AST):
            out.append(v)
    v = node.decorator_list
    if v is not None:
        if type(v) is list:
            out += v
        elif isinstance(v, AST):
            out.append(v)
    v = node.returns
    if v is not None:
        if type(v) is list:
            out += v
        elif isinstance(v, AST):
            out.append(v)
    return out


def _c34(node):
    out = []
    v = node.name
    if v is not None:
        if type(v) is list:
            out += v
        elif isinstance(v, AST):
            out.append(v)
    v = node.args
    if v is not None:
        if type(v) is list:
            out += v
        elif isinstance(v, AST):
            out.append(v)
    v = node.body
    if v is not None:
        if type(v) is list:
            out += v
        elif isinstance(v, AST):
            out.append(v)
    v = node.decorator_list
    if v is not None:
        if type(v) is list:
            out += v
        elif isinstance(v, AST):
            out.append(v)
    v = node.returns
    if v is not None:
        if type(v) is list:
            out += v
        elif isinstance(v, AST):
            out.append(v)
    v = node.type_params
    if v is not None:
        if type(v) is list:
            out += v
        elif isinstance(v, AST):
            out.append(v)
    return out


def _c35(node):
    out = []
    v = node.name
    if v is not None:
        if type(v) is list:
            out += v
        elif isinstance(v, AST):
            out.append(v)
    v = node.asname
    if v is not None:
        if type(v) is list:
            out += v
        elif isinstance(v, AST):
            out.append(v)
    return out


def _c36(node):
    out = []
    v = node.name
    if v is not None:
        if type(v) is list:
            out += v
        elif isinstance(v, AST):
            out.append(v)
    v = node.bases
    if v is not None:
        if type(v) is list:
            out += v
        elif isinstance(v, AST):
            out.append(v)
    v = node.keywords
    if v is not None:
        if type(v) is list:
            out += v
        elif isinstance(v, AST):
            out.append(v)
    v = node.body
    if v is not None:
        if type(v) is list:
            out += v
        elif isinstance(v, AST):
            out.append(v)
    v = node.decorator_list
    if v is not None:
        if type(v) is list:
            out += v
        elif isinstance(v, AST):
            out.append(v)
    return out


def _c37(node):
    out = []
    v = node.name
    if v is not None:
        if type(v) is list:
            out += v
        elif isinstance(v, AST):
            out.append(v)
    v = node.bases
    if v is not None:
        if type(v) is list:
            out += v
        elif isinstance(v, AST):
            out.append(v)
    v = node.keywords
    if v is not None:
        if type(v) is list:
            out += v
        elif isinstance(v, AST):
            out.append(v)
    v = node.body
    if v is not None:
        if type(v) is list:
            out += v
        elif isinstance(v, AST):
            out.append(v)
    v = node.decorator_list
    if v is not None:
        if type(v) is list:
            out += v
        elif isinstance(v, AST):
            out.append(v)
    v = node.type_params
    if v is not None:
        if type(v) is list:
            out += v
        elif isinstance(v, AST):
            out.append(v)
    return out


def _c38(node):
    out = []
    v = node.name
    if v is not None:
        if type(v) is list:
            out += v
        elif isinstance(v, AST):
            out.append(v)
    v = node.bound
    if v is not None:
        if type(v) is list:
            out += v
        elif isinstance(v, AST):
            out.append(v)
    return out


def _c39(node):
    out = []
    v = node.name
    if v is not None:
        if type(v) is list:
            out += v
        elif isinstance(v, AST):
            out.append(v)
    v = node.bound
    if v is not None:
        if type(v) is list:
            out += v
        elif isinstance(v, AST):
            out.append(v)
    v = node.default_value
    if v is not None:
        if type(v) is list:
            out += v
        elif isinstance(v, AST):
            out.append(v)
    return out


def _c40(node):
    out = []
    v = node.name
    if v is not None:
        if type(v) is list:
            out += v
        elif isinstance(v, AST):
            out.append(v)
    v = node.default_value
    if v is not None:
        if type(v) is list:
            out += v
        elif isinstance(v, AST):
            out.append(v)
    return out


def _c41(node):
    out = []
    v = node.name
    if v is not None:
        if type(v) is list:
            out += v
        elif isinstance(v, AST):
            out.append(v)
    v = node.type_params
    if v is not None:
        if type(v) is list:
            out += v
        elif isinstance(v, AST):
            out.append(v)
    v = node.value
    if v is not None:
        if type(v) is list:
            out += v
        elif isinstance(v, AST):
            out.append(v)
    return out


def _c42(node):
    out = []
    v = node.names
    if v is not None:
        if type(v) is list:
            out += [x for x in v if isinstance(x, AST)]
        elif isinstance(v, AST):
            out.append(v)
    return out


def _c43(node):
    out = []
    v = node.op
    if v is not None:
        if type(v) is list:
            out += v
        elif isinstance(v, AST):
            out.append(v)
    v = node.operand
    if v is not None:
        if type(v) is list:
            out += v
        elif isinstance(v, AST):
            out.append(v)
    return out


def _c44(node):
    out = []
    v = node.op
    if v is not None:
        if type(v) is list:
            out += v
        elif isinstance(v, AST):
            out.append(v)
    v = node.values
    if v is not None:
        if type(v) is list:
            out += v
        elif isinstance(v, AST):
            out.append(v)
    return out


def _c45(node):
    out = []
    v = node.operand
    if v is not None:
        if type(v) is list:
            out += v
        elif isinstance(v, AST):
            out.append(v)
    return out


def _c46(node):
    out = []
    v = node.pattern
    if v is not None:
        if type(v) is list:
            out += v
        elif isinstance(v, AST):
            out.append(v)
    return out


def _c47(node):
    out = []
    v = node.pattern
    if v is not None:
        if type(v) is list:
            out += v
        elif isinstance(v, AST):
            out.append(v)
    v = node.guard
    if v is not None:
        if type(v) is list:
            out += v
        elif isinstance(v, AST):
            out.append(v)
    v = node.body
    if v is not None:
        if type(v) is list:
            out += v
        elif isinstance(v, AST):
            out.append(v)
    return out


def _c48(node):
    out = []
    v = node.pattern
    if v is not None:
        if type(v) is list:
            out += v
        elif isinstance(v, AST):
            out.append(v)
    v = node.name
    if v is not None:
        if type(v) is list:
            out += v
        elif isinstance(v, AST):
            out.append(v)
    return out


def _c49(node):
    out = []
    v = node.patterns
    if v is not None:
        if type(v) is list:
            out += v
        elif isinstance(v, AST):
            out.append(v)
    return out


def _c50(node):
    out = []
    v = node.posonlyargs
    if v is not None:
        if type(v) is list:
            out += v
        elif isinstance(v, AST):
            out.append(v)
    v = node.args
    if v is not None:
        if type(v) is list:
            out += v
        elif isinstance(v, AST):
            out.append(v)
    v = node.vararg
    if v is not None:
        if type(v) is list:
            out += v
        elif isinstance(v, AST):
            out.append(v)
    v = node.kwonlyargs
    if v is not None:
        if type(v) is list:
            out += v
        elif isinstance(v, AST):
            out.append(v)
    v = node.kw_defaults
    if v is not None:
        if type(v) is list:
            out += [x for x in v if isinstance(x, AST)]
        elif isinstance(v, AST):
            out.append(v)
    v = node.kwarg
    if v is not None:
        if type(v) is list:
            out += v
        elif isinstance(v, AST):
            out.append(v)
    v = node.defaults
    if v is not None:
        if type(v) is list:
            out += v
        elif isinstance(v, AST):
            out.append(v)
    return out


def _c51(node):
    out = []
    v = node.subject
    if v is not None:
        if type(v) is list:
            out += v
        elif isinstance(v, AST):
            out.append(v)
    v = node.cases
    if v is not None:
        if type(v) is list:
            out += v
        elif isinstance(v, AST):
            out.append(v)
    return out


def _c52(node):
    out = []
    v = node.tag
    if v is not None:
        if type(v) is list:
            out += v
        elif isinstance(v, AST):
            out.append(v)
    return out


def _c53(node):
    out = []
    v = node.target
    if v is not None:
        if type(v) is list:
            out += v
        elif isinstance(v, AST):
            out.append(v)
    v = node.annotation
    if v is not None:
        if type(v) is list:
            out += v
        elif isinstance(v, AST):
            out.append(v)
    v = node.value
    if v is not None:
        if type(v) is list:
            out += v
        elif isinstance(v, AST):
            out.append(v)
    v = node.simple
    if v is not None:
        if type(v) is list:
            out += v
        elif isinstance(v, AST):
            out.append(v)
    return out


def _c54(node):
    out = []
    v = node.target
    if v is not None:
        if type(v) is list:
            out += v
        elif isinstance(v, AST):
            out.append(v)
    v = node.iter
    if v is not None:
        if type(v) is list:
            out += v
        elif isinstance(v, AST):
            out.append(v)
    v = node.body
    if v is not None:
        if type(v) is list:
            out += v
        elif isinstance(v, AST):
            out.append(v)
    v = node.orelse
    if v is not None:
        if type(v) is list:
            out += v
        elif isinstance(v, AST):
            out.append(v)
    return out


def _c55(node):
    out = []
    v = node.target
    if v is not None:
        if type(v) is list:
            out += v
        elif isinstance(v, AST):
            out.append(v)
    v = node.iter
    if v is not None:
        if type(v) is list:
            out += v
        elif isinstance(v, AST):
            out.append(v)
    v = node.ifs
    if v is not None:
        if type(v) is list:
            out += v
        elif isinstance(v, AST):
            out.append(v)
    return out


def _c56(node):
    out = []
    v = node.target
    if v is not None:
        if type(v) is list:
            out += v
        elif isinstance(v, AST):
            out.append(v)
    v = node.op
    if v is not None:
        if type(v) is list:
            out += v
        elif isinstance(v, AST):
            out.append(v)
    v = node.value
    if v is not None:
        if type(v) is list:
            out += v
        elif isinstance(v, AST):
            out.append(v)
    return out


def _c57(node):
    out = []
    v = node.target
    if v is not None:
        if type(v) is list:
            out += v
        elif isinstance(v, AST):
            out.append(v)
    v = node.value
    if v is not None:
        if type(v) is list:
            out += v
        elif isinstance(v, AST):
            out.append(v)
    return out


def _c58(node):
    out = []
    v = node.targets
    if v is not None:
        if type(v) is list:
            out += v
        elif isinstance(v, AST):
            out.append(v)
    return out


def _c59(node):
    out = []
    v = node.targets
    if v is not None:
        if type(v) is list:
            out += v
        elif isinstance(v, AST):
            out.append(v)
    v = node.value
    if v is not None:
        if type(v) is list:
            out += v
        elif isinstance(v, AST):
            out.append(v)
    return out


def _c60(node):
    out = []
    v = node.test
    if v is not None:
        if type(v) is list:
            out += v
        elif isinstance(v, AST):
            out.append(v)
    v = node.body
    if v is not None:
        if type(v) is list:
            out += v
        elif isinstance(v, AST):
            out.append(v)
    v = node.orelse
    if v is not None:
        if type(v) is list:
            out += v
        elif isinstance(v, AST):
            out.append(v)
    return out


def _c61(node):
    out = []
    v = node.test
    if v is not None:
        if type(v) is list:
            out += v
        elif isinstance(v, AST):
            out.append(v)
    v = node.msg
    if v is not None:
        if type(v) is list:
            out += v
        elif isinstance(v, AST):
            out.append(v)
    return out


def _c62(node):
    out = []
    v = node.type
    if v is not None:
        if type(v) is list:
            out += v
        elif isinstance(v, AST):
            out.append(v)
    v = node.body
    if v is not None:
        if type(v) is list:
            out += v
        elif isinstance(v, AST):
            out.append(v)
    return out


def _c63(node):
    out = []
    v = node.type
    if v is not None:
        if type(v) is list:
            out += v
        elif isinstance(v, AST):
            out.append(v)
    v = node.name
    if v is not None:
        if type(v) is list:
            out += v
        elif isinstance(v, AST):
            out.append(v)
    v = node.body
    if v is not None:
        if type(v) is list:
            out += v
        elif isinstance(v, AST):
            out.append(v)
    return out


def _c64(node):
    out = []
    v = node.type_params
    if v is not None:
        if type(v) is list:
            out += v
        elif isinstance(v, AST):
            out.append(v)
    v = node.value
    if v is not None:
        if type(v) is list:
            out += v
        elif isinstance(v, AST):
            out.append(v)
    return out


def _c65(node):
    out = []
    v = node.value
    if v is not None:
        if type(v) is list:
            out += v
        elif isinstance(v, AST):
            out.append(v)
    return out


def _c66(node):
    out = []
    v = node.value
    if v is not None:
        if type(v) is list:
            out += v
        elif isinstance(v, AST):
            out.append(v)
    v = node.ctx
    if v is not None:
        if type(v) is list:
            out += v
        elif isinstance(v, AST):
            out.append(v)
    return out


def _c67(node):
    out = []
    v = node.value
    if v is not None:
        if type(v) is list:
            out += v
        elif isinstance(v, AST):
            out.append(v)
    v = node.format_spec
    if v is not None:
        if type(v) is list:
            out += v
        elif isinstance(v, AST):
            out.append(v)
    return out


def _c68(node):
    out = []
    v = node.value
    if v is not None:
        if type(v) is list:
            out += v
        elif isinstance(v, AST):
            out.append(v)
    v = node.slice
    if v is not None:
        if type(v) is list:
            out += v
        elif isinstance(v, AST):
            out.append(v)
    return out


def _c69(node):
    out = []
    v = node.value
    if v is not None:
        if type(v) is list:
            out += v
        elif isinstance(v, AST):
            out.append(v)
    v = node.slice
    if v is not None:
        if type(v) is list:
            out += v
        elif isinstance(v, AST):
            out.append(v)
    v = node.ctx
    if v is not None:
        if type(v) is list:
            out += v
        elif isinstance(v, AST):
            out.append(v)
    return out


def _c70(node):
    out = []
    v = node.values
    if v is not None:
        if type(v) is list:
            out += v
        elif isinstance(v, AST):
            out.append(v)
    return out

FUNCTIONS = {
    (): _c0,
    ('annotation',): _c1,
    ('args', 'body'): _c2,
    ('args', 'body', 'decorator_list', 'returns'): _c3,
    ('args', 'body', 'decorator_list', 'returns', 'type_params'): _c4,
    ('argtypes', 'returns'): _c5,
    ('asname',): _c6,
    ('bases', 'keywords', 'body', 'decorator_list'): _c7,
    ('bases', 'keywords', 'body', 'decorator_list', 'type_params'): _c8,
    ('body',): _c9,
    ('body', 'handlers', 'orelse', 'finalbody'): _c10,
    ('body', 'type_ignores'): _c11,
    ('bound',): _c12,
    ('bound', 'default_value'): _c13,
    ('cls', 'patterns', 'kwd_attrs', 'kwd_patterns'): _c14,
    ('context_expr', 'optional_vars'): _c15,
    ('ctx',): _c16,
    ('default_value',): _c17,
    ('elt', 'generators'): _c18,
    ('elts',): _c19,
    ('elts', 'ctx'): _c20,
    ('exc', 'cause'): _c21,
    ('func', 'args', 'keywords'): _c22,
    ('items', 'body'): _c23,
    ('key', 'value', 'generators'): _c24,
    ('keys', 'patterns', 'rest'): _c25,
    ('keys', 'values'): _c26,
    ('left', 'comparators'): _c27,
    ('left', 'op', 'right'): _c28,
    ('left', 'ops', 'comparators'): _c29,
    ('left', 'right'): _c30,
    ('lower', 'upper', 'step'): _c31,
    ('name',): _c32,
    ('name', 'args', 'body', 'decorator_list', 'returns'): _c33,
    ('name', 'args', 'body', 'decorator_list', 'returns', 'type_params'): _c34,
    ('name', 'asname'): _c35,
    ('name', 'bases', 'keywords', 'body', 'decorator_list'): _c36,
    ('name', 'bases', 'keywords', 'body', 'decorator_list', 'type_params'): _c37,
    ('name', 'bound'): _c38,
    ('name', 'bound', 'default_value'): _c39,
    ('name', 'default_value'): _c40,
    ('name', 'type_params', 'value'): _c41,
    ('names',): _c42,
    ('op', 'operand'): _c43,
    ('op', 'values'): _c44,
    ('operand',): _c45,
    ('pattern',): _c46,
    ('pattern', 'guard', 'body'): _c47,
    ('pattern', 'name'): _c48,
    ('patterns',): _c49,
    ('posonlyargs', 'args', 'vararg', 'kwonlyargs', 'kw_defaults', 'kwarg', 'defaults'): _c50,
    ('subject', 'cases'): _c51,
    ('tag',): _c52,
    ('target', 'annotation', 'value', 'simple'): _c53,
    ('target', 'iter', 'body', 'orelse'): _c54,
    ('target', 'iter', 'ifs'): _c55,
    ('target', 'op', 'value'): _c56,
    ('target', 'value'): _c57,
    ('targets',): _c58,
    ('targets', 'value'): _c59,
    ('test', 'body', 'orelse'): _c60,
    ('test', 'msg'): _c61,
    ('type', 'body'): _c62,
    ('type', 'name', 'body'): _c63,
    ('type_params', 'value'): _c64,
    ('value',): _c65,
    ('value', 'ctx'): _c66,
    ('value', 'format_spec'): _c67,
    ('value', 'slice'): _c68,
    ('value', 'slice', 'ctx'): _c69,
    ('values',): _c70,
}
