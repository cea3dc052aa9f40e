import { port, serviceBase } from "@payin/config";

export const configSchema = { ...serviceBase, ALLOCATION_PORT: port(50054) };
