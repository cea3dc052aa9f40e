import { describePublicCodes } from "@payin/testing";
import { reasonCodes } from "./reason-codes.js";

describePublicCodes(reasonCodes);
