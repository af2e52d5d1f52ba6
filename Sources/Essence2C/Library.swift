// libessence2.so: the C interface's thunks (Essence2Interface) linked with the runtime into one library,
// exporting only be_essence2_* and be_expression2_* (exports.map). This target adds no code of its own; it carries the link flags.
@_exported import Essence2Interface
import Essence2Runtime
