// The store module: runs STOREs in order, each once compute has produced what it moves
// (pop_prev: a compute->store token) and there is room for the token it gives back when done
// (push_prev: store->compute). Each output entry is read from the output buffer (one cycle) and
// written to DRAM a beat per granted cycle; a write is complete when granted.
module vdla_store #(
    parameter int OUT_SHIFT = 4,  // log2 bytes of an output entry
    parameter int OUT_BEATS = 1,
    parameter int OUT_DEPTH = 2048
) (
    input logic clk,
    input logic rst,
    input logic [31:0] dram_bytes,  // DRAM's size: a STORE may write bytes [0, dram_bytes)
    input logic [159:0] q_head,
    input logic q_empty,
    output logic q_pop,
    input logic have_pop_prev,
    input logic room_push_prev,
    output logic tok_pop,
    output logic tok_push,
    output logic retire,
    output logic [31:0] retire_index,
    output logic [15:0] out_rd_entry,
    input logic [OUT_BEATS*128-1:0] out_rd_data,
    output logic req_valid,
    output logic [31:0] req_addr,
    output logic [127:0] req_wdata,
    input logic req_grant,
    output logic busy,
    // The STORE at the queue's head would read past the output buffer (err_buffer BUF_OUT,
    // err_index: the first index past it) or write past DRAM's end (BUF_DRAM, the last DRAM entry
    // it would write), the buffer checked first: it does not start.
    output logic err,
    output logic [2:0] err_buffer,
    output logic [31:0] err_index,
    output logic [31:0] err_insn
);
  import vdla_pkg::*;
  typedef enum logic [1:0] {
    IDLE,
    READ,
    WRITE,
    DONE
  } state_t;
  state_t state;
  insn_t insn, head;
  logic [31:0] index;
  logic [15:0] y, x;
  logic [8:0] beat;
  assign head = q_head[127:0];

  wire ready = !q_empty && (!pop_prev(head) || have_pop_prev) &&
               (!push_prev(head) || room_push_prev);
  wire buffer_overrun = !q_empty && overruns(head, store_entries(head), OUT_DEPTH);
  wire dram_overrun = !q_empty && dram_overruns(head, 4'(OUT_SHIFT), dram_bytes);
  wire overrun = buffer_overrun || dram_overrun;
  assign err = state == IDLE && overrun;
  assign err_buffer = buffer_overrun ? 3'(BUF_OUT) : 3'(BUF_DRAM);
  assign err_index = buffer_overrun ? first_past(head, OUT_DEPTH) : 32'(dram_last(head));
  assign err_insn = q_head[159:128];
  wire start = state == IDLE && ready && !overrun;
  assign q_pop = start;
  assign tok_pop = start && pop_prev(head);
  assign busy = state != IDLE;
  assign retire = state == DONE;
  assign retire_index = index;
  assign tok_push = retire && push_prev(insn);

  assign out_rd_entry = 16'(32'(sram_base(insn)) + 32'(y) * 32'(x_size(insn)) + 32'(x));
  assign req_valid = state == WRITE;
  assign req_addr = ((dram_base(insn) + 32'(y) * 32'(x_stride(insn)) + 32'(x)) << OUT_SHIFT) +
                    (32'(beat) << 4);
  assign req_wdata = out_rd_data[beat*128+:128];

  always_ff @(posedge clk) begin
    if (rst) begin
      state <= IDLE;
    end else begin
      case (state)
        IDLE:
        if (start) begin
          insn <= head;
          index <= q_head[159:128];
          {y, x, beat} <= '0;
          state <= (y_size(head) == 0 || x_size(head) == 0) ? DONE : READ;
        end
        READ: state <= WRITE;
        WRITE:
        if (req_grant) begin
          if (32'(beat) + 1 < OUT_BEATS) begin
            beat <= beat + 1'b1;
          end else begin
            beat <= '0;
            state <= READ;
            if (x + 1 < x_size(insn)) begin
              x <= x + 1'b1;
            end else begin
              x <= '0;
              if (y + 1 < y_size(insn)) y <= y + 1'b1;
              else state <= DONE;
            end
          end
        end
        DONE: state <= IDLE;
        default: state <= IDLE;
      endcase
    end
  end
endmodule
