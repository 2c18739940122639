// Reads the program from DRAM, 16 bytes an instruction, with up to DEPTH reads in flight, and
// dispatches each instruction, in order, into the queue of the module that runs it (isa.h, Route),
// stalling while that queue is full. Each queued instruction carries its index in the program.
module vdla_fetch #(
    parameter int DEPTH = 16
) (
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
    output logic working,  // not stalled on a full queue
    // The next instruction is one no module runs (vdla_pkg::malformed): fetch stops there.
    output logic err,
    output logic [31:0] err_insn
);
  import vdla_pkg::*;
  logic [31:0] base, count, requested, received;
  logic active;
  // Fetched, not yet dispatched: (index, instruction), in order.
  logic [159:0] head;
  logic empty, full;
  logic [1:0] target;
  insn_t insn;
  assign insn = head[127:0];

  // Room for every read in flight: requested - dispatched < DEPTH.
  logic [31:0] dispatched;
  assign req_valid = active && requested < count && (requested - dispatched) < 32'(DEPTH);
  assign req_addr = base + (requested << 4);

  vdla_fifo #(
      .WIDTH(160),
      .DEPTH(DEPTH)
  ) fetched (
      .clk(clk),
      .rst(rst || launch),
      .push(resp_valid),
      .push_data({received, resp_data}),
      .pop(q_push != 3'b0),
      .head(head),
      .empty(empty),
      .full(full)
  );

  always_comb begin
    // LOAD of inputs or weights: load; STORE: store; the rest: compute.
    target = 2'd1;
    if (opcode(insn) == 3'(OP_STORE)) target = 2'd2;
    else if (opcode(insn) == 3'(OP_LOAD) &&
             (mem_type(insn) == 3'(MEM_INP) || mem_type(insn) == 3'(MEM_WGT)))
      target = 2'd0;
    q_push = (!empty && !err && !q_full[target]) ? 3'(1 << target) : 3'b0;
  end
  assign err = !empty && malformed(insn);
  assign err_insn = head[159:128];
  assign q_data = head;
  assign fetching = active;
  assign working = req_valid || requested != received || (!empty && !err && !q_full[target]);

  always_ff @(posedge clk) begin
    if (rst) begin
      active <= 1'b0;
    end else if (launch) begin
      base <= insn_addr;
      count <= insn_count;
      {requested, received, dispatched} <= '0;
      active <= insn_count != 0;
    end else if (active) begin
      if (req_valid && req_grant) requested <= requested + 1;
      if (resp_valid) received <= received + 1;
      if (q_push != 3'b0) begin
        dispatched <= dispatched + 1;
        if (dispatched + 1 == count) active <= 1'b0;
      end
    end
  end
endmodule
