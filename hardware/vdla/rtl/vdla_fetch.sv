// Reads the program from DRAM, one 16-byte instruction at a time, and dispatches each, in order,
// into the queue of the module that runs it (isa.h, Route), stalling while that queue is full.
// Each queued instruction carries its index in the program.
module vdla_fetch (
    input logic clk,
    input logic rst,
    input logic launch,
    input logic [31:0] insn_addr,
    input logic [31:0] insn_count,
    output logic req_valid,
    output logic [31:0] req_addr,
    input logic req_grant,
    input logic resp_valid,
    input logic [127:0] resp_data,
    // Queue k: 0 load, 1 compute, 2 store.
    output logic [2:0] q_push,
    output logic [159:0] q_data,
    input logic [2:0] q_full,
    output logic fetching,
    output logic working  // not stalled on a full queue
);
  import vdla_pkg::*;
  typedef enum logic [1:0] {
    IDLE,
    REQUEST,
    WAIT,
    DISPATCH
  } state_t;
  state_t state;
  logic [31:0] pc, base, count;
  insn_t insn;
  logic [1:0] target;

  assign fetching = state != IDLE;
  assign working = state == REQUEST || state == WAIT || (state == DISPATCH && !q_full[target]);
  assign req_valid = state == REQUEST;
  assign req_addr = base + (pc << 4);
  assign q_data = {pc, insn};

  always_comb begin
    // LOAD of inputs or weights: load; STORE: store; the rest: compute.
    target = 2'd1;
    if (opcode(insn) == 3'(OP_STORE)) target = 2'd2;
    else if (opcode(insn) == 3'(OP_LOAD) &&
             (mem_type(insn) == 3'(MEM_INP) || mem_type(insn) == 3'(MEM_WGT)))
      target = 2'd0;
    q_push = (state == DISPATCH && !q_full[target]) ? 3'(1 << target) : 3'b0;
  end

  always_ff @(posedge clk) begin
    if (rst) begin
      state <= IDLE;
    end else begin
      case (state)
        IDLE:
        if (launch) begin
          base <= insn_addr;
          count <= insn_count;
          pc <= '0;
          state <= insn_count == 0 ? IDLE : REQUEST;
        end
        REQUEST: if (req_grant) state <= WAIT;
        WAIT:
        if (resp_valid) begin
          insn <= resp_data;
          state <= DISPATCH;
        end
        DISPATCH:
        if (!q_full[target]) begin
          pc <= pc + 1;
          state <= pc + 1 == count ? IDLE : REQUEST;
        end
        default: state <= IDLE;
      endcase
    end
  end
endmodule
