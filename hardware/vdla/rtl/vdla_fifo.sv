// A first-in first-out queue of DEPTH entries (a power of two): the command queues between fetch
// and the modules, and the arbiter's record of whose read each response answers.
module vdla_fifo #(
    parameter int WIDTH = 8,
    parameter int DEPTH = 16
) (
    input logic clk,
    input logic rst,
    input logic push,
    input logic [WIDTH-1:0] push_data,
    input logic pop,
    output logic [WIDTH-1:0] head,
    output logic empty,
    output logic full
);
  localparam int AW = $clog2(DEPTH);
  logic [WIDTH-1:0] slots[DEPTH];
  logic [AW:0] rd, wr;

  assign empty = rd == wr;
  assign full = (wr - rd) == (AW + 1)'(DEPTH);
  assign head = slots[rd[AW-1:0]];

  always_ff @(posedge clk) begin
    if (rst) begin
      rd <= '0;
      wr <= '0;
    end else begin
      if (push && !full) begin
        slots[wr[AW-1:0]] <= push_data;
        wr <= wr + 1'b1;
      end
      if (pop && !empty) rd <= rd + 1'b1;
    end
  end
endmodule
