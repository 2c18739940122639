// VDLA's instruction encoding, bit for bit the layout of hardware/vdla/isa.h (its TheBitLayoutIsFixed
// test pins the positions): bits 0-2 opcode, 3-6 the dependency flags, then each kind's fields.
package vdla_pkg;
  localparam int OP_LOAD = 0, OP_STORE = 1, OP_GEMM = 2, OP_ALU = 3, OP_FINISH = 4;
  localparam int MEM_UOP = 0, MEM_WGT = 1, MEM_INP = 2, MEM_ACC = 3, MEM_OUT = 4;
  localparam int ALU_MIN = 0, ALU_MAX = 1, ALU_ADD = 2, ALU_SHR = 3, ALU_MUL = 4;

  typedef logic [127:0] insn_t;

  // Buffers, as errors name them: input, weight, accumulator, micro-op, output; and DRAM, for a
  // LOAD or STORE whose DRAM entries pass its end (the index then the last entry it would move).
  localparam int BUF_INP = 0, BUF_WGT = 1, BUF_ACC = 2, BUF_UOP = 3, BUF_OUT = 4, BUF_DRAM = 5;

  function automatic logic [2:0] opcode(insn_t i); return i[2:0]; endfunction
  function automatic logic pop_prev(insn_t i); return i[3]; endfunction
  function automatic logic pop_next(insn_t i); return i[4]; endfunction
  function automatic logic push_prev(insn_t i); return i[5]; endfunction
  function automatic logic push_next(insn_t i); return i[6]; endfunction

  // LOAD / STORE
  function automatic logic [2:0] mem_type(insn_t i); return i[9:7]; endfunction
  function automatic logic [15:0] sram_base(insn_t i); return i[25:10]; endfunction
  function automatic logic [31:0] dram_base(insn_t i); return i[57:26]; endfunction
  function automatic logic [15:0] y_size(insn_t i); return i[73:58]; endfunction
  function automatic logic [15:0] x_size(insn_t i); return i[89:74]; endfunction
  function automatic logic [15:0] x_stride(insn_t i); return i[105:90]; endfunction
  function automatic logic [3:0] y_pad_0(insn_t i); return i[109:106]; endfunction
  function automatic logic [3:0] y_pad_1(insn_t i); return i[113:110]; endfunction
  function automatic logic [3:0] x_pad_0(insn_t i); return i[117:114]; endfunction
  function automatic logic [3:0] x_pad_1(insn_t i); return i[121:118]; endfunction

  // The buffer entries a LOAD writes, (pad + y_size + pad) x (pad + x_size + pad) from sram_base,
  // and those a STORE reads, y_size x x_size.
  function automatic logic [33:0] load_entries(insn_t i);
    return (34'(y_pad_0(i)) + 34'(y_size(i)) + 34'(y_pad_1(i))) *
           (34'(x_pad_0(i)) + 34'(x_size(i)) + 34'(x_pad_1(i)));
  endfunction
  function automatic logic [33:0] store_entries(insn_t i);
    return 34'(y_size(i)) * 34'(x_size(i));
  endfunction
  // Whether `entries` entries from sram_base overrun a buffer of `depth`; the first index past it
  // (entries are consecutive) is then max(sram_base, depth).
  function automatic logic overruns(insn_t i, logic [33:0] entries, int depth);
    return entries != 0 && 34'(sram_base(i)) + entries > 34'(depth);
  endfunction
  function automatic logic [31:0] first_past(insn_t i, int depth);
    return 32'(sram_base(i)) > 32'(depth) ? 32'(sram_base(i)) : 32'(depth);
  endfunction

  // The last DRAM entry a LOAD or STORE moves, dram_base + (y_size-1)*x_stride + x_size-1 (isa.h,
  // DramExtentOf; padding moves none), when y_size and x_size are not 0. Below 2^33: an error
  // index reports its low 32 bits.
  function automatic logic [33:0] dram_last(insn_t i);
    return 34'(dram_base(i)) + (34'(y_size(i)) - 34'd1) * 34'(x_stride(i)) + 34'(x_size(i)) -
           34'd1;
  endfunction
  // Whether a LOAD or STORE of entries of 1 << shift bytes moves bytes past the first dram_bytes:
  // (last entry + 1) << shift > dram_bytes, in 50 bits so that nothing wraps.
  function automatic logic dram_overruns(insn_t i, logic [3:0] shift, logic [31:0] dram_bytes);
    return y_size(i) != 0 && x_size(i) != 0 &&
           ((50'(dram_last(i)) + 50'd1) << shift) > 50'(dram_bytes);
  endfunction

  // What no module runs (isa.h, Route): an unknown opcode, memory type or ALU operation, a LOAD of
  // outputs, a STORE of anything else, padding on micro-ops, weights or stores, a token flag
  // toward a neighbour the module does not have.
  function automatic logic malformed(insn_t i);
    logic [2:0] op = opcode(i);
    logic [2:0] t = mem_type(i);
    logic padded = (y_pad_0(i) | y_pad_1(i) | x_pad_0(i) | x_pad_1(i)) != 0;
    if (op > 3'(OP_FINISH)) return 1'b1;
    if (op == 3'(OP_ALU)) return alu_op(i) > 3'(ALU_MUL);
    if (op == 3'(OP_STORE)) return t != 3'(MEM_OUT) || padded || pop_next(i) || push_next(i);
    if (op == 3'(OP_LOAD)) begin
      if (t > 3'(MEM_OUT) || t == 3'(MEM_OUT)) return 1'b1;
      if (padded && (t == 3'(MEM_UOP) || t == 3'(MEM_WGT))) return 1'b1;
      if ((t == 3'(MEM_INP) || t == 3'(MEM_WGT)) && (pop_prev(i) || push_prev(i))) return 1'b1;
    end
    return 1'b0;
  endfunction

  // GEMM
  function automatic logic gemm_reset(insn_t i); return i[7]; endfunction
  function automatic logic [13:0] gemm_uop_begin(insn_t i); return i[21:8]; endfunction
  function automatic logic [14:0] gemm_uop_end(insn_t i); return i[36:22]; endfunction
  function automatic logic [12:0] gemm_iter_out(insn_t i); return i[49:37]; endfunction
  function automatic logic [12:0] gemm_iter_in(insn_t i); return i[62:50]; endfunction
  function automatic logic [10:0] gemm_dst_out(insn_t i); return i[73:63]; endfunction
  function automatic logic [10:0] gemm_dst_in(insn_t i); return i[84:74]; endfunction
  function automatic logic [10:0] gemm_src_out(insn_t i); return i[95:85]; endfunction
  function automatic logic [10:0] gemm_src_in(insn_t i); return i[106:96]; endfunction
  function automatic logic [9:0] gemm_wgt_out(insn_t i); return i[116:107]; endfunction
  function automatic logic [9:0] gemm_wgt_in(insn_t i); return i[126:117]; endfunction

  // ALU
  function automatic logic [13:0] alu_uop_begin(insn_t i); return i[20:7]; endfunction
  function automatic logic [14:0] alu_uop_end(insn_t i); return i[35:21]; endfunction
  function automatic logic [12:0] alu_iter_out(insn_t i); return i[48:36]; endfunction
  function automatic logic [12:0] alu_iter_in(insn_t i); return i[61:49]; endfunction
  function automatic logic [10:0] alu_dst_out(insn_t i); return i[72:62]; endfunction
  function automatic logic [10:0] alu_dst_in(insn_t i); return i[83:73]; endfunction
  function automatic logic [10:0] alu_src_out(insn_t i); return i[94:84]; endfunction
  function automatic logic [10:0] alu_src_in(insn_t i); return i[105:95]; endfunction
  function automatic logic [2:0] alu_op(insn_t i); return i[108:106]; endfunction
  function automatic logic alu_use_imm(insn_t i); return i[109]; endfunction
  function automatic logic [15:0] alu_imm(insn_t i); return i[125:110]; endfunction

  // Micro-ops: accumulator [10:0], input [21:11], weight [31:22].
  function automatic logic [10:0] uop_acc(logic [31:0] u); return u[10:0]; endfunction
  function automatic logic [10:0] uop_inp(logic [31:0] u); return u[21:11]; endfunction
  function automatic logic [9:0] uop_wgt(logic [31:0] u); return u[31:22]; endfunction
endpackage
