// The one DRAM port, shared by fetch (0), the load module's DMA (1), the compute module's DMA (2)
// and the store module (3, writes). One request is granted per cycle, the lowest-numbered waiting
// requester last (store first, fetch last); read responses come back in request order and go to
// whoever asked, as the record of outstanding reads says.
module vdla_arbiter #(
    parameter int OUTSTANDING = 64
) (
    input logic clk,
    input logic rst,
    input logic [3:0] req_valid,
    input logic [3:0] req_write,
    input logic [31:0] req_addr[4],
    input logic [127:0] req_wdata[4],
    output logic [3:0] req_grant,
    output logic [3:0] resp_valid,
    output logic [127:0] resp_data,
    // The memory side.
    output logic mem_req_valid,
    input logic mem_req_ready,
    output logic mem_req_write,
    output logic [31:0] mem_req_addr,
    output logic [127:0] mem_req_wdata,
    input logic mem_resp_valid,
    input logic [127:0] mem_resp_data
);
  logic [1:0] pick;
  logic any;
  logic ids_full, ids_empty;
  logic [1:0] ids_head;

  always_comb begin
    any = 1'b0;
    pick = 2'd0;
    for (int r = 0; r < 4; r++) begin
      // A read needs room in the record; a write does not.
      if (req_valid[r] && (req_write[r] || !ids_full)) begin
        any = 1'b1;
        pick = 2'(r);
      end
    end
  end

  assign mem_req_valid = any;
  assign mem_req_write = req_write[pick];
  assign mem_req_addr = req_addr[pick];
  assign mem_req_wdata = req_wdata[pick];
  assign req_grant = (any && mem_req_ready) ? 4'(1 << pick) : 4'b0;

  vdla_fifo #(
      .WIDTH(2),
      .DEPTH(OUTSTANDING)
  ) ids (
      .clk(clk),
      .rst(rst),
      .push(any && mem_req_ready && !req_write[pick]),
      .push_data(pick),
      .pop(mem_resp_valid),
      .head(ids_head),
      .empty(ids_empty),
      .full(ids_full)
  );

  assign resp_valid = (mem_resp_valid && !ids_empty) ? 4'(1 << ids_head) : 4'b0;
  assign resp_data = mem_resp_data;
endmodule
